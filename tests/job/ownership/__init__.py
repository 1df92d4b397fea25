"""Tests of job/ownership/: the one rule for whether a job found by name is ours."""
