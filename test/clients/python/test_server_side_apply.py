"""Server-side apply through the official Python client: typed (apply-patch+yaml) and DynamicClient.server_side_apply."""
import json

import pytest
from kubernetes import client
from kubernetes.dynamic import DynamicClient

APPLY = "application/apply-patch+yaml"


def apply_configmap(core, namespace, manager, data, force=None):
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied"}, "data": data}
    kwargs = {"field_manager": manager, "_content_type": APPLY}
    if force is not None:
        kwargs["force"] = force
    return core.patch_namespaced_config_map("applied", namespace, body, **kwargs)


def test_apply_creates_then_updates_and_records_managers(core, namespace):
    first = apply_configmap(core, namespace, "py-a", {"a": "1"})
    assert first.data == {"a": "1"}
    assert [(m.manager, m.operation) for m in first.metadata.managed_fields] == [("py-a", "Apply")]

    second = apply_configmap(core, namespace, "py-b", {"b": "2"})
    assert second.data == {"a": "1", "b": "2"}
    assert sorted(m.manager for m in second.metadata.managed_fields) == ["py-a", "py-b"]

    # py-a applies again without "a": the field it alone owned is removed.
    third = apply_configmap(core, namespace, "py-a", {"c": "3"})
    assert third.data == {"b": "2", "c": "3"}


def test_apply_conflict_then_force(core, namespace):
    apply_configmap(core, namespace, "owner", {"k": "mine"})
    with pytest.raises(client.ApiException) as conflict:
        apply_configmap(core, namespace, "intruder", {"k": "theirs"})
    assert conflict.value.status == 409
    status = json.loads(conflict.value.body)
    assert status["reason"] == "Conflict"
    assert any(c.get("field") == ".data.k" for c in status["details"]["causes"])

    forced = apply_configmap(core, namespace, "intruder", {"k": "theirs"}, force=True)
    assert forced.data == {"k": "theirs"}
    owners = {m.manager: m.fields_v1 for m in forced.metadata.managed_fields}
    assert "f:k" in json.dumps(owners["intruder"])
    assert "f:k" not in json.dumps(owners.get("owner") or {})


def test_dynamic_server_side_apply(api_client, namespace):
    dyn = DynamicClient(api_client)
    leases = dyn.resources.get(api_version="coordination.k8s.io/v1", kind="Lease")
    body = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "ssa", "namespace": namespace}, "spec": {"holderIdentity": "py"}}
    applied = leases.server_side_apply(body=body, namespace=namespace, field_manager="py-dyn")
    assert applied.spec.holderIdentity == "py"
    assert [m.manager for m in applied.metadata.managedFields] == ["py-dyn"]
