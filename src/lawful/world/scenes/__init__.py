"""Flat-style scene builders shared by tasks: the motion a clip shows and the frames that draw it.

A builder is a pure function of the numbers a task stores in ``case.known`` (passed as ``k``), the
frame times and the appearance style, so a task file keeps only its declarative part (parameters,
objects, observables, metrics) and calls one builder to render. Modules are grouped by family
(:mod:`~lawful.world.scenes.slopes`, ...) and draw with :mod:`lawful.world.draw`.
"""
