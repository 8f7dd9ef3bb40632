-- The serving lease's epoch: bumped by each process that takes the lease, and checked by every
-- game write, so a predecessor still writing after another process took over is refused by
-- the database itself (store/lease.py, store/postgres.py). One row.
CREATE TABLE serving_epoch (
    id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    epoch bigint NOT NULL
);
INSERT INTO serving_epoch (id, epoch) VALUES (1, 0);
