"""Command-line tools beside the provider: ``orphans`` (``modelarts-orphans``) finds, adopts or terminates the
jobs an interrupted ``pulumi up`` left outside the state, reading the stack's export (``stack_export``) and
what the killed ``pulumi`` left on this machine (``leftovers``); ``from_terraform``
(``modelarts-from-terraform``) writes the ``pulumi import --file`` document that adopts the jobs a Terraform
state manages, reading the state (``terraform_state``); ``policies`` holds the training job policies of
``pulumi preview --policy-pack``. They may import the job, the account, the wire and the generated tables.
"""
