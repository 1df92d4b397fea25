"""Command-line tools beside the provider: ``orphans`` (``modelarts-orphans``) finds, adopts or terminates the
jobs an interrupted ``pulumi up`` left outside the state. They may import the job, the account and the wire.
"""
