"""The account: where the region, project, endpoint and credentials come from, and how they become a signer.

It may import the wire (``..wire``) and nothing else of the package.
"""
