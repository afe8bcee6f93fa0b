"""Hand-written fakes of the ports, in memory, for fast use-case tests (cosmicpython's
``FakeUnitOfWork``): they implement the ports for real, no mock anywhere. Each fake has a
contract test in ``tests/contracts`` that runs the same scenarios on it and on the real
adapter, so that it cannot drift from what it stands in for."""
