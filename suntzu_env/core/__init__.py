"""The game-free core every game builds on, importing no game: the protocol a game answers (`protocol`, `asking`),
the registries of games and players (`games`, `players`, `agent`), the checks of what users pass in (`checks`),
a state's named fields (`fields`), the random generator (`rng`), saved states and files read as data
(`saved_arrays`, `npz`), statistics (`stats`), the environments made from any game's turn games (`turn_envs`,
`turn_gym`, `openspiel`, `formats`) and what every game's environments share (`aec`), the policy networks played
in compiled code (`policy_net`), threads and the numba cache (`threads`, `numba_cache`), the user's folders
(`user_folders`), a package's names imported when first used (`lazy`), and the names that moved or were retired
(`moved`, `retired`)."""
