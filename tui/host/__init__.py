"""``margin host``: seats, the SSH and web doors, and the session each seat runs."""
