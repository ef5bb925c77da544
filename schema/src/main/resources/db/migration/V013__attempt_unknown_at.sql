-- When an attempt was first made UNKNOWN (by its worker at the soft deadline, or by the sweeper once the worker
-- counted as vanished). An attempt that went UNKNOWN and then got its late answer ends SUCCEEDED or FAILED; without
-- this column nothing said it had ever been UNKNOWN, so nobody could count the UNKNOWNs whose provider had in fact
-- answered in time (onejob's own queueing mistaken for a slow provider). NULL: never UNKNOWN, or before this migration.
ALTER TABLE attempts ADD COLUMN unknown_at timestamptz;
