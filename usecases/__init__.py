"""Use cases: functions over ports, a unit of work and a clock (cosmicpython's service
layer). Activities, the HTTP API and the command line call these, so that no rule is
written twice and no entry point can be more lenient than another. They import the
domain and nothing of infrastructure."""
