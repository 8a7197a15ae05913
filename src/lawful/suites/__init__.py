"""Protocols: one package per benchmark, each registering a suite of tasks."""

from lawful.suites.base import Suite, Task, TrackingPlan, get_suite, register_suite, suite_names

__all__ = ["Suite", "Task", "TrackingPlan", "get_suite", "register_suite", "suite_names"]
