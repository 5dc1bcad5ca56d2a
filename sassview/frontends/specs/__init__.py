"""One light module per frontend, each holding its `SPEC` (see `sassview.frontends.registry`)."""
