"""Waiting: how long, and why. Polling a job until a condition ends the wait (``polling``, the one loop; the
polls of one process's waiting jobs shared by a search, ``shared_polls``), a new job's wait for what
``wait_for`` asks and the bounds of every wait (``goal``), what a phase means for that target
(``targets``), the newest log line meanwhile (``logtail``), whether a job has stopped (``stopped``),
stopping it and deleting its record (``stopping``), and giving up on a job with the report of why
(``giving_up``; its text, ``failure_text``).

It may import the job's base modules (``client``, ``setting_values``, ``labels``, ``progress``,
``secret_paths``, ``normalising``), the wire, the account and the generated modules; never ``ownership``
or the operations (``core`` and what it calls), which import it.
"""
