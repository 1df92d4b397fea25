"""The wire: what the ModelArts service speaks and how it is reached.

The request and response models (``models/``, one import path), the phase vocabulary (``phases``), endpoint
URLs (``endpoints``), what a request may carry (``sendable``), the errors of a call (``errors``) and the
service's refusals (``api_errors``), request signing (``auth``), the HTTP transport with its retries
(``transport``), the one careful reader of every answer and file (``reading``), an answer interpreted
(``interpreting``) and the API's operations (``api``). Nothing here knows of Pulumi, of a job's lifecycle
or of where settings come from (a value it is handed and cannot use is a ``SettingsError``); it imports
nothing of the package outside this folder.
"""
