package bunstore

// PostgreSQL's simple query protocol, which pgdriver speaks, takes several statements in one
// message and answers them in one reply. AppendTurn uses that to cost one round trip (the
// busiest writes are functions called as prepared statements instead: migration 0009):
//
//   - Statements sent together without BEGIN run as one implicit transaction: they commit
//     together, and an error in any rolls back all of them.
//   - Each still takes its own snapshot (READ COMMITTED). So a statement that takes a lock
//     ("SELECT pg_advisory_xact_lock(k)", or an upsert that locks the row it finds) makes the
//     statements behind it read under that lock: "INSERT ... WHERE (SELECT count(*) ...) < cap"
//     counts what committed before the lock was granted.
//   - An Exec reports the last statement's row count and the first error; rows of earlier
//     statements are read and dropped.
//   - A Query reads only the first statement that returns rows, so the statements in front of
//     one must return none (INSERT or UPDATE without RETURNING).
//
// pgdriver does not cancel a statement when its context ends: it stops waiting for the answer.
// A message whose answer was lost so may have committed, as a lost answer to any COMMIT may.
