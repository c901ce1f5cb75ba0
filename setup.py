"""The three layers install under one import package: margin.core, margin.events, margin.tui.

Every package folder inside them is found, so a dice system added as a
sub-package is in the wheel without being listed.
"""

from setuptools import find_packages, setup

LAYERS = ("events", "core", "tui")

setup(
    packages=[
        f"margin.{p}"
        for p in find_packages(include=[p for layer in LAYERS for p in (layer, f"{layer}.*")])
    ],
    package_dir={f"margin.{layer}": layer for layer in LAYERS},
    # py.typed: the layers are typed throughout, so type checkers read them as they are;
    # .md, .tcss, .html: rules, screen styles and the web seat's page
    package_data={
        f"margin.{layer}": ["py.typed", "**/*.md", "**/*.tcss", "**/*.html"] for layer in LAYERS
    },
)
