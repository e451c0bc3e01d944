# SPDX-License-Identifier: MIT
"""Validate scene files against the JSON Schema of the scene format
(docs/vsim-scene.schema.json, `vsim schema`), as an editor's YAML language
server would: run by tests/test_schema_cli.c with /usr/bin/python3 and
Debian's python3-jsonschema and python3-yaml.

    python3 tests/schema_validate.py SCHEMA.json SCENE.yaml...

Prints "FILE: ok" or "FILE: PATH: message" for each error; exit 0 when every
file is valid, 1 when one is not, 3 when a module is missing.  The YAML is
read as YAML 1.2 reads numbers (1e-6 is a float, as vsim and the language
server read it; PyYAML's YAML 1.1 would make it a string)."""
import json
import re
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:
    print("missing module: %s" % e.name)
    sys.exit(3)


class Loader(yaml.SafeLoader):
    pass


Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
                   |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
                   |\.[0-9_]+(?:[eE][-+][0-9]+)?
                   |[-+]?\.(?:inf|Inf|INF)
                   |\.(?:nan|NaN|NAN))$""", re.X),
    list("-+0123456789."))

schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
validator = jsonschema.Draft7Validator(schema)
bad = 0
for path in sys.argv[2:]:
    with open(path) as f:
        doc = yaml.load(f, Loader=Loader)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    if not errors:
        print("%s: ok" % path)
    for e in errors:
        bad += 1
        where = "/".join(str(p) for p in e.path) or "(top)"
        print("%s: %s: %s" % (path, where, e.message))
sys.exit(1 if bad else 0)
