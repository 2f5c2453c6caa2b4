"""Page test helpers; the tournament fixtures come from tests/tournaments/conftest.py."""

import pytest
from django.test import Client


@pytest.fixture
def client_for():
    def make(user=None):
        client = Client()
        if user is not None:
            client.force_login(user)
        return client

    return make
