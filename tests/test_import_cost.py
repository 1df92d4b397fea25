"""A Pulumi program that declares jobs does not pay for the wire models, pydantic or httpx.

The program process only needs the resource and the provider class (pickled by reference); validation and
API calls happen in the provider host, which loads those modules on its first check or call.
"""

from __future__ import annotations

import json
import subprocess
import sys


def test_program_side_import_leaves_the_heavy_modules_unloaded() -> None:
    code = (
        "import json, sys\n"
        "from pulumi_modelarts import TrainingJob, TrainingJobProvider\n"
        "heavy = ['pydantic', 'httpx', 'pulumi_modelarts.wire.models', 'pulumi_modelarts.wire.api']\n"
        "print(json.dumps([m for m in heavy if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []


def test_provider_check_loads_what_it_needs() -> None:
    code = (
        "from pulumi_modelarts.frontends.dynamic import TrainingJobProvider\n"
        "result = TrainingJobProvider().check({}, {'name_prefix': 'x', 'spec': {}})\n"
        "print(len(result.failures))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert int(out) > 0  # validation ran (lazily imported) and found the missing algorithm and flavor


def test_typed_inputs_load_only_when_named() -> None:
    # inputs.py is large (a class pair per input object); a program passing plain dicts never needs it.
    code = (
        "import sys\n"
        "from pulumi_modelarts import TrainingJob\n"
        "print('pulumi_modelarts.generated.inputs' in sys.modules)\n"
        "from pulumi_modelarts import TrainingJobSpecArgs\n"
        "print('pulumi_modelarts.generated.inputs' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


def test_loading_the_models_leaves_the_garbage_collector_as_it_found_it() -> None:
    # models.py pauses the cyclic collector while it builds its classes; it must hand it back in either state.
    code = (
        "import gc, sys\n"
        "if sys.argv[1] == 'off': gc.disable()\n"
        "import pulumi_modelarts.wire.models\n"
        "print(gc.isenabled())\n"
    )
    for state, expected in (("on", "True"), ("off", "False")):
        out = subprocess.run(
            [sys.executable, "-c", code, state], capture_output=True, text=True, check=True
        ).stdout
        assert out.strip() == expected, state
