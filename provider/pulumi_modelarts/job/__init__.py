"""The job: every operation on a training job, the steps they take and the rules they follow.

``core`` holds the operations both front-ends call (check, plan, create, read, update, delete, list); each
step lives in a module named by its job: checking, normalising and diffing the inputs, naming jobs, the
phases' lifecycle, polling and waiting (``polling`` is the one loop, ``waiting`` a create's wait), progress
lines, logs, failure reports, tags, what the state records, stopping a job, recovering a lost create or a
held name (``matching`` a holder to the declaration), and the client they share (``client``: the wire's API
with the lost-create recovery). It may import the wire, the account and the generated modules, never a
front-end.
"""
