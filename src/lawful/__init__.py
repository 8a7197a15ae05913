"""lawful: test whether video generators obey physical laws (Principia, WMLE, Apple-pi, PhyGround)."""

__version__ = "0.1.0"
