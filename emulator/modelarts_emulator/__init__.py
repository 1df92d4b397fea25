"""A ModelArts training-job API (v2) emulator for demos and tests (not for production).

Run it with ``modelarts-emulator`` (or ``python -m modelarts_emulator``); ``--help`` lists every flag. It
serves the API on loopback over plain HTTP, playing the service's rules as its API pages, the official SDK and
its error-code pages describe them:

* ``POST /v2/{project_id}/training-jobs`` -> 201 with the job (server-filled fields added)
* ``GET|PUT|DELETE /v2/{project_id}/training-jobs/{id}`` -> 200 job | 204 (description only) | 202 (the record
  is removed, whatever the job's phase, and its name is free again)
* ``POST /v2/{project_id}/training-jobs/{id}/actions`` ``{"action_type": "terminate"}`` -> 202 with the job
* ``POST /v2/{project_id}/training-job-searches`` -> 200 {total, count, limit, offset, sort_by, order, ...}
* ``GET /v2/{project_id}/training-job-names?job_name=…[&workspace_id=…]`` -> 200 {is_duplicate}
* ``GET /v2/{project_id}/training-jobs/{id}/tasks/{task}/logs/preview`` -> 200 {content, current_size,
  full_size}, or 204 (no body) while the job has not run yet
* ``GET /v2/{project_id}/training-jobs/{id}/events`` -> 200 {total, limit, offset, order, events[{message,
  level, time, source}]}
* ``GET /v2/{project_id}/training-job-flavors[?flavor_type=CPU|GPU|Ascend]`` -> 200 {total_count, flavors}
  and ``GET /v2/{project_id}/training-job-engines`` -> 200 {total, items}: the training catalogue
  (``catalogue.py``); both 403 ``ModelArts.0203`` with ``--catalogue closed``
* ``GET /_emulator/stats``, ``POST /_emulator/stats/reset``, ``GET /_emulator/health``, ``POST
  /_emulator/reset`` (deletes every job, zeroes the stats, restarts the fault seed) -- no authentication
* IAM and an instance metadata service on the same server (``iam.py``, ``metadata.py``): project listings,
  security tokens (assume_role, token), id-token login, metadata keys; every temporary key is accepted with
  its ``X-Security-Token`` until it expires, then refused 401 ``APIG.0307`` (``GET /_emulator/credentials``
  counts them)

Defaults: access key ``EMULATORAK000000000``, secret key ``emulator-secret-key``, project
``0123456789abcdef0123456789abcdef``, ``http://127.0.0.1:8910``. Requests are signed with SDK-HMAC-SHA256
(X-Sdk-Date within 15 minutes) or, with ``--auth-token``, an ``X-Auth-Token``. On ready it prints a readable
block and one line ``MODELARTS_EMULATOR_READY {json}`` (url, access_key, secret_key, project_id, data_dir).

Answers (``errors.py`` lists every code; the few the emulator chose itself are marked there):

* 400 ``ModelArts.2775`` unknown job id; 400 ``ModelArts.2763`` invalid request (error_msg names each field:
  unknown keys, types, limits, the pages' "together with" and "leave blank" rules); 400 ``ModelArts.2751`` a
  create whose name a kept job holds, as the service does (``--no-unique-names`` accepts duplicates);
* terminate: 409 ``ModelArts.2796`` a job that is not Creating, Pending or Running; 400 ``ModelArts.2812`` an
  action other than terminate; 409 ``ModelArts.2878`` "status changed, try again later"
  (``--terminate-conflict-rate``);
* search: 400 ``ModelArts.2789`` unsupported filter key, ``2790`` unsupported sort_by, ``2807``/``2808``/
  ``2809`` a condition with unsupported keys / operator / values (see ``search.py``);
* logs: 400 ``ModelArts.2818`` the job stopped before it ran, so no log was generated; 400 ``ModelArts.2819``
  the log was cleared (hook below); a task the job does not have is a 400 ``ModelArts.2763``;
* 401 ``APIG.0301`` missing/wrong signature, unknown access key, stale X-Sdk-Date, bad token; 403
  ``ModelArts.0105`` a project id other than the emulator's; 404 ``APIG.0101`` no such API;
* faults: 429 (``--throttle-rate``) ``APIG.0308`` with ``Retry-After: 1`` or ModelArts' own
  ``ModelArts.2799`` (``--throttle-code``); 500 ``ModelArts.0001`` / 503 ``APIG.0201`` (``--fault-rate``).
  Every answer carries ``X-Request-Id``.
* Answers carry what the service adds beyond the seed pages: the ``job_template`` annotation,
  ``spec.runtime_type`` ("production" unless sent), ``engine.image_repo_id`` and ``install_sys_packages``
  for custom images, ``running_records[].recover_records``, ``status.retention_time`` (with
  ``spec.reserved_time``) and ``status.task_ips`` (in searches by ``host_ips``), and echo every create field
  of the official SDK.
* Statistics count API operations by name (create, get, update, delete, terminate, search, name_check, logs,
  events, flavors, engines), refused ones too (authentication, project, throttling and 5xx faults, dropped
  creates); unknown routes are not counted.

Phases are computed from timestamps (no background work): Creating (``--creating-seconds``) -> Pending/Queuing
(``--pending-seconds``) -> Running (``--running-seconds``) -> Completed; a terminate gives Terminating for
``--terminating-seconds`` then Terminated. A task's log starts when the job runs, grows a progress line every
tenth of the running time and ends the way the job ended; events record each phase change (an Error event on
failure). ``--drop-after-commit-rate`` stores a create and then closes the connection without an answer.
``--seed`` makes fault decisions reproducible for a given request sequence.

Test hooks: ``metadata.annotations`` keys on a create request (kept in the job's annotations):

* ``emulator/fail-after-seconds: N`` -- the job goes Failed N seconds after it starts Running (if N is less
  than its running time), with ``status.task_statuses`` exit code ``emulator/exit-code`` (default 1) and
  message ``emulator/failure-message``; its log ends with a traceback and that message;
* ``emulator/stay-pending: "true"`` -- the job never leaves Pending (it can still be terminated);
* ``emulator/running-seconds: N`` -- this job's running time, overriding ``--running-seconds``;
* ``emulator/log-tail: TEXT`` -- the last lines of each task's log once the job stopped;
* ``emulator/log-echo-env: NAME`` -- every progress line of the log ends with ``NAME=<value>`` of the job's
  environment variable NAME (a training script printing a secret);
* ``emulator/logs-cleared-after-seconds: N`` -- the logs are cleared N seconds after the job stopped;
* ``emulator/terminating-seconds: N`` -- after a terminate the job stays Terminating N seconds, overriding
  ``--terminating-seconds``;
* ``emulator/throttle-updates: "true"`` -- every description update of the job is answered 429
  ``ModelArts.2799`` (no Retry-After), as a throttled service would;
* ``emulator/refuse-tags: "true"`` -- every tag create of the job is refused (403, as without the permission
  to tag).
* ``emulator/report-phase: NAME`` -- from ``emulator/report-phase-after-seconds`` (default 0) after creation,
  while the job is Creating, Pending or Running and not terminated, it reports the phase NAME (one the API
  pages do not list, as a service adding phases would); a terminate is then refused with 409
  ``ModelArts.2796``, as the pages' rule says, unless ``emulator/report-phase-terminable: "true"``.

Tests start it as a separate process with :func:`modelarts_emulator.testing.start_emulator`.
"""
