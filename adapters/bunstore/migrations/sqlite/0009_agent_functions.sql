-- Nothing on SQLite: the functions of this version make PostgreSQL's busiest agent writes one
-- prepared statement each; SQLite runs in process, where a statement costs no round trip.
SELECT 1;
