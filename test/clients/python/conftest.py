"""Fixtures for the Python client compatibility suite.

The suite drives an atrium server that someone else started (test/clients/clients.test.ts does it with the test
harness); ATRIUM_KUBECONFIG names its admin kubeconfig. Without it the run fails instead of skipping, so a missing
server can never look like a green suite.
"""
import itertools
import os
import time

import pytest
from kubernetes import client, config

KUBECONFIG_ENV = "ATRIUM_KUBECONFIG"
_counter = itertools.count(1)


def pytest_configure(config):  # noqa: ARG001 - pytest hook signature
    if not os.environ.get(KUBECONFIG_ENV):
        raise pytest.UsageError(
            f"{KUBECONFIG_ENV} is not set; start an atrium server and point {KUBECONFIG_ENV} at its admin.kubeconfig"
        )


@pytest.fixture(scope="session")
def api_client():
    """An ApiClient configured from the admin kubeconfig of the server under test."""
    configuration = client.Configuration()
    config.load_kube_config(config_file=os.environ[KUBECONFIG_ENV], client_configuration=configuration)
    with client.ApiClient(configuration) as api:
        yield api


@pytest.fixture
def core(api_client):
    return client.CoreV1Api(api_client)


@pytest.fixture
def namespace(core, request):
    """A fresh namespace named after the test, deleted afterwards."""
    label = "".join(c if c.isalnum() else "-" for c in request.node.name.lower()).strip("-")
    name = f"py-{label}"[:48].rstrip("-") + f"-{int(time.time() * 1000) % 100000}-{next(_counter)}"
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    yield name
    try:
        core.delete_namespace(name)
    except client.ApiException as e:
        if e.status != 404:
            raise
