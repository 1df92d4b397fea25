"""Ownership: is this job ours? The one rule for whether a job found under a create's name is that create's
own (``judging``), the evidence a name's holder is compared by (``matching``), the job a create whose
answer was lost or unusable made (``lost_creates``, the recovery handed to each post), and a create whose name
is held by another job (``held_names``: adopt it, move to the next generation, or free the name).

It may import ``waiting`` (freeing a name stops its holder), the job's base modules, the wire, the account
and the generated modules; never the operations (``core`` and what it calls), which import it.
"""
