"""The official Python client against atrium: list, watch, create, patch (merge and strategic) and server-side apply."""
import json
import threading
import time

import pytest
from kubernetes import client, watch
from kubernetes.dynamic import DynamicClient


# A controller publishes this ConfigMap into every namespace (as kube-controller-manager does); tests look past it.
ROOT_CA = "kube-root-ca.crt"


def names(items):
    return [i.metadata.name for i in items if i.metadata.name != ROOT_CA]


def configmap(name, data=None, labels=None):
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels=labels), data=data)


def test_create_get_and_list(core, namespace):
    created = core.create_namespaced_config_map(namespace, configmap("one", {"k": "v"}, {"app": "py"}))
    assert created.metadata.uid
    assert created.metadata.resource_version
    assert created.metadata.creation_timestamp is not None
    core.create_namespaced_config_map(namespace, configmap("two", labels={"app": "other"}))

    got = core.read_namespaced_config_map("one", namespace)
    assert got.data == {"k": "v"}
    assert got.metadata.resource_version == created.metadata.resource_version

    everything = core.list_namespaced_config_map(namespace)
    assert sorted(names(everything.items)) == ["one", "two"]
    assert everything.metadata.resource_version

    selected = core.list_namespaced_config_map(namespace, label_selector="app=py")
    assert [i.metadata.name for i in selected.items] == ["one"]

    by_field = core.list_namespaced_config_map(namespace, field_selector="metadata.name=two")
    assert [i.metadata.name for i in by_field.items] == ["two"]

    namespaces = [n.metadata.name for n in core.list_namespace().items]
    assert namespace in namespaces and "default" in namespaces


def test_errors_map_to_api_exceptions(core, namespace):
    core.create_namespaced_config_map(namespace, configmap("dup"))
    with pytest.raises(client.ApiException) as conflict:
        core.create_namespaced_config_map(namespace, configmap("dup"))
    assert conflict.value.status == 409
    status = json.loads(conflict.value.body)
    assert status["kind"] == "Status"
    assert status["reason"] == "AlreadyExists"
    assert status["details"] == {"name": "dup", "kind": "configmaps"}

    with pytest.raises(client.ApiException) as missing:
        core.read_namespaced_config_map("nope", namespace)
    assert missing.value.status == 404
    assert json.loads(missing.value.body)["message"] == 'configmaps "nope" not found'


def test_limit_and_continue(core, namespace):
    for i in range(5):
        core.create_namespaced_config_map(namespace, configmap(f"page-{i}"))
    seen = []
    token = None
    while True:
        page = core.list_namespaced_config_map(namespace, limit=2, _continue=token)
        assert len(page.items) <= 2
        seen += names(page.items)
        token = page.metadata._continue
        if not token:
            break
    assert seen == [f"page-{i}" for i in range(5)]


def test_merge_patch(core, namespace):
    core.create_namespaced_config_map(namespace, configmap("m", {"a": "1", "b": "2"}, {"keep": "yes"}))
    patched = core.patch_namespaced_config_map(
        "m", namespace, {"data": {"a": None, "c": "3"}, "metadata": {"labels": {"added": "yes"}}},
        _content_type="application/merge-patch+json",
    )
    assert patched.data == {"b": "2", "c": "3"}
    assert patched.metadata.labels == {"keep": "yes", "added": "yes"}


def test_strategic_merge_patch(core, namespace):
    # The Python client sends a dict body as a strategic merge patch unless told otherwise.
    core.create_namespaced_config_map(namespace, configmap("s", {"a": "1"}))
    patched = core.patch_namespaced_config_map("s", namespace, {"data": {"b": "2"}})
    assert patched.data == {"a": "1", "b": "2"}

    account = core.create_namespaced_service_account(
        namespace,
        client.V1ServiceAccount(
            metadata=client.V1ObjectMeta(name="sa"),
            secrets=[client.V1ObjectReference(name="first")],
        ),
    )
    assert [s.name for s in account.secrets] == ["first"]
    # ServiceAccount.secrets merges by name under strategic merge patch: the list grows instead of being replaced.
    patched = core.patch_namespaced_service_account("sa", namespace, {"secrets": [{"name": "second"}]})
    assert sorted(s.name for s in patched.secrets) == ["first", "second"]


def test_json_patch(core, namespace):
    core.create_namespaced_config_map(namespace, configmap("j", {"a": "1"}))
    patched = core.patch_namespaced_config_map("j", namespace, [{"op": "add", "path": "/data/b", "value": "2"}])
    assert patched.data == {"a": "1", "b": "2"}


def test_replace_and_delete(core, namespace):
    created = core.create_namespaced_config_map(namespace, configmap("r", {"a": "1"}))
    created.data["a"] = "2"
    replaced = core.replace_namespaced_config_map("r", namespace, created)
    assert replaced.data == {"a": "2"}
    assert replaced.metadata.resource_version != created.metadata.resource_version

    created.data["a"] = "3"  # still carries the old resourceVersion
    with pytest.raises(client.ApiException) as stale:
        core.replace_namespaced_config_map("r", namespace, created)
    assert stale.value.status == 409

    status = core.delete_namespaced_config_map("r", namespace)
    assert status is not None
    with pytest.raises(client.ApiException) as gone:
        core.read_namespaced_config_map("r", namespace)
    assert gone.value.status == 404


def test_watch_streams_changes_until_timeout(core, namespace):
    start_rv = core.list_namespaced_config_map(namespace).metadata.resource_version

    def mutate():
        time.sleep(0.3)
        core.create_namespaced_config_map(namespace, configmap("w", {"v": "1"}))
        core.patch_namespaced_config_map("w", namespace, {"data": {"v": "2"}})
        core.delete_namespaced_config_map("w", namespace)

    writer = threading.Thread(target=mutate)
    writer.start()
    w = watch.Watch()
    events = []
    began = time.monotonic()
    for event in w.stream(core.list_namespaced_config_map, namespace, resource_version=start_rv, timeout_seconds=3):
        if event["object"].metadata.name == ROOT_CA:
            continue
        events.append((event["type"], event["object"].metadata.name, (event["object"].data or {}).get("v")))
        if len(events) == 3:
            w.stop()
    writer.join()
    assert events == [("ADDED", "w", "1"), ("MODIFIED", "w", "2"), ("DELETED", "w", "2")]
    assert time.monotonic() - began < 10


def test_watch_timeout_seconds_ends_the_stream(core, namespace):
    began = time.monotonic()
    events = list(watch.Watch().stream(core.list_namespaced_config_map, namespace, label_selector="none=here", timeout_seconds=1))
    elapsed = time.monotonic() - began
    assert events == []
    assert 0.9 <= elapsed < 10


def test_dynamic_client(api_client, namespace):
    dyn = DynamicClient(api_client)
    leases = dyn.resources.get(api_version="coordination.k8s.io/v1", kind="Lease")
    created = leases.create(
        namespace=namespace,
        body={"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "lock"}, "spec": {"holderIdentity": "py"}},
    )
    assert created.spec.holderIdentity == "py"
    listed = leases.get(namespace=namespace)
    assert [i.metadata.name for i in listed.items] == ["lock"]
    patched = leases.patch(
        namespace=namespace, name="lock", body={"spec": {"holderIdentity": "other"}},
        content_type="application/merge-patch+json",
    )
    assert patched.spec.holderIdentity == "other"
    leases.delete(namespace=namespace, name="lock")
    assert leases.get(namespace=namespace).items == []
