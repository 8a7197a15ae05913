"""Generators: the models under test. Each turns a case (first frame + prompt) into a video file."""

from lawful.generators.base import Generator, get_generator, generator_names

__all__ = ["Generator", "get_generator", "generator_names"]
