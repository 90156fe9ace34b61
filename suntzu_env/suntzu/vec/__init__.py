"""The batched environment, by job: `env` (`SunTzuVecEnv`, Stable-Baselines3's `VecEnv`), `slots` (its opponents),
`play` (batched play of seeded games between two agents), `vector` (`SunTzuVectorEnv`, Gymnasium's vector API);
`suntzu_env.suntzu.vec_env` is their public face and `suntzu_env.suntzu.vec_core` the compiled step under them.
`env`, `play`
and `vector` import Stable-Baselines3, so the package does not import them."""
