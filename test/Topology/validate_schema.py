#!/usr/bin/env python3
"""Validates topology files against topologies/topology.schema.json.

Prints "valid: NAME" or "invalid: NAME: first error" for every .json file
of the given directories (in sorted order, schema files skipped), after
checking that the schema itself is a valid JSON Schema (draft 2020-12).
"""
import json
import os
import sys

import jsonschema


def main():
    schema_path, dirs = sys.argv[1], sys.argv[2:]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for directory in dirs:
        for name in sorted(os.listdir(directory)):
            if not name.endswith(".json") or "schema" in name:
                continue
            try:
                with open(os.path.join(directory, name), encoding="utf-8") as f:
                    doc = json.load(f)
            except ValueError as error:
                print(f"invalid: {name}: not JSON: {error}")
                continue
            errors = sorted(validator.iter_errors(doc), key=lambda e: e.path)
            if errors:
                print(f"invalid: {name}: {errors[0].message}")
            else:
                print(f"valid: {name}")


if __name__ == "__main__":
    main()
