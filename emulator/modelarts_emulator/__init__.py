"""An embedded ModelArts emulator for the demo and the tests (not for production).

Run it with ``python -m modelarts_emulator`` (or ``modelarts-emulator``); ``--help`` lists every flag.
It serves the v2 training-job API on loopback over plain HTTP:

* ``POST /v2/{project_id}/training-jobs`` -> 201 with the job (server-filled fields added)
* ``GET|PUT|DELETE /v2/{project_id}/training-jobs/{id}`` -> 200 job | 204 (description only) | 204
* ``POST /v2/{project_id}/training-jobs/{id}/actions`` ``{"action_type": "terminate"}`` -> 202 with the job
* ``POST /v2/{project_id}/training-job-searches`` -> 200 {total, count, limit, offset, sort_by, order, ...}
* ``GET /_emulator/stats``, ``POST /_emulator/stats/reset``, ``GET /_emulator/health``, ``POST
  /_emulator/reset`` (deletes every job, zeroes the stats, restarts the fault seed) -- no authentication

Defaults: access key ``EMULATORAK000000000``, secret key ``emulator-secret-key``, project
``0123456789abcdef0123456789abcdef``, ``http://127.0.0.1:8910``. Requests are signed with SDK-HMAC-SHA256
(X-Sdk-Date within 15 minutes) or, with ``--auth-token``, an ``X-Auth-Token``. On ready it prints a readable
block and one line ``MODELARTS_EMULATOR_READY {json}`` (url, access_key, secret_key, project_id, data_dir).

Answers, as the service gives them (codes the emulator chose where the pages name none are marked *):

* 400 ``ModelArts.2775`` unknown job id; 400 ``ModelArts.2763``* invalid body (error_msg names the field);
  400 ``ModelArts.2762``* terminate of a job that is not Creating, Pending or Running;
  401 ``APIG.0301`` missing/wrong signature, unknown access key, stale X-Sdk-Date, bad token;
  403 ``ModelArts.0105``* a project id other than the emulator's; 404 ``APIG.0101`` no such API;
  429 ``APIG.0308`` with ``Retry-After: 1`` (``--throttle-rate``); 500 ``ModelArts.0001``* / 503
  ``APIG.0201``* (``--fault-rate``). Every answer carries ``X-Request-Id``.
* Duplicate job names are accepted (the pages do not say the service refuses them).
* Searches: ``offset`` is a page index, ``limit`` 1..50 (default 10); filters on name (like/in/not), phase
  (in/not), kind (in/not), create_time (between [from, to] ms, blank = open), algorithm_name, workspace_id,
  user_id (ignored); blank values mean no condition. ``total`` = all jobs, ``count`` = jobs matching.
* Statistics count API operations by name (create, get, update, delete, terminate, search), refused ones too
  (authentication, project, throttling and 5xx faults, dropped creates); unknown routes are not counted.

Phases are computed from timestamps (no background work): Creating (``--creating-seconds``) -> Pending/Queuing
(``--pending-seconds``) -> Running (``--running-seconds``) -> Completed; a terminate gives Terminating for
``--terminating-seconds`` then Terminated. ``--drop-after-commit-rate`` stores a create and then closes the
connection without an answer. ``--seed`` makes fault decisions reproducible for a given request sequence.

Test hooks: ``metadata.annotations`` keys on a create request (kept in the job's annotations):

* ``emulator/fail-after-seconds: N`` -- the job goes Failed N seconds after it starts Running (if N is less
  than its running time), with ``status.task_statuses`` exit code ``emulator/exit-code`` (default 1) and
  message ``emulator/failure-message``;
* ``emulator/stay-pending: "true"`` -- the job never leaves Pending (it can still be terminated);
* ``emulator/running-seconds: N`` -- this job's running time, overriding ``--running-seconds``.

Tests start it as a separate process with :func:`modelarts_emulator.testing.start_emulator`.
"""
