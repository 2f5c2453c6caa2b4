"""API test helpers; the tournament fixtures come from tests/tournaments/conftest.py."""

import pytest
from rest_framework.test import APIClient


@pytest.fixture
def client_for():
    def make(user=None):
        client = APIClient()
        if user is not None:
            client.force_login(user)
        return client

    return make
