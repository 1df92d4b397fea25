"""The job: every operation on a training job, the steps they take and the rules they follow.

``core`` holds the operations both front-ends call (check, plan, create, read, update, delete, list); each
step lives in a module named by its job: checking, normalising and diffing the inputs, naming jobs, the
settings' values (wait targets, durations), progress lines, tags, what the state records, and the client
they share (``client``: the wire's API with its defaults). Two rooms hold the longer questions: ``waiting``
(how long, and why: polling, a create's wait, stopping a job, giving up on one) and ``ownership`` (is this
job ours: a lost create, a held name). Those rooms import the base modules here, ``ownership`` imports
``waiting``, and the operations import both (tests/test_layers.py holds it). It may import the wire, the
account and the generated modules, never a front-end.
"""
