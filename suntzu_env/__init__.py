"""suntzu-env: the Sun Tzu card-and-area-control game as a reinforcement-learning environment."""

from suntzu_env.game import Game

__all__ = ["Game"]
__version__ = "0.1.0"
