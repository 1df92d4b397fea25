"""Tests of job/waiting/: the polling loop, shared polls, the log tail."""
