"""The front-ends: Pulumi's two ways of serving a provider, each translating its protocol to the job's core.

``dynamic`` (``pulumi.dynamic``, plain dicts in wire names) with ``resource`` (the program side:
``TrainingJob``, ``get_training_jobs``), and ``plugin`` (the native provider protocol) with ``native_values``
(its PropertyValues), ``warm_up`` and ``serving`` (its server start); ``functions`` serves the package's
functions to both. What both do alike has a module each (``provider_config``, ``naming``, ``engine_text``);
``renaming`` translates between the schema's camelCase, Python's snake_case and the wire's names. They
translate and present; the rules of a job (validation, plans, waits, the catalogue) are in ``..job``. They
may import everything below them (job, account, wire, generated), never ``..tools``.
"""
