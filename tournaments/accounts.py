"""Sign-up for players. Log in and out use Django's own views (config/urls.py)."""

from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.shortcuts import redirect, render


def signup(request):
    form = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        return redirect("decks:deck_list")
    return render(request, "registration/signup.html", {"form": form})
