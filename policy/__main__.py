"""The training job policies as a policy pack: the engine starts this file and talks to the server it opens.

Every policy is advisory unless --policy-pack-config sets its enforcementLevel (docs/policies.md).
"""

from pulumi_modelarts.tools.policies import serve

serve()
