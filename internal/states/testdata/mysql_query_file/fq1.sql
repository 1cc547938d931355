-- seed rows
INSERT INTO t1 VALUES (3, 'c'), (4, 'd'); # two rows
/* a block
   comment */
SELECT id, name FROM t1 WHERE id < 3;
UPDATE t1 SET name = 'x--y;' WHERE id > 2;
SELECT COUNT(*) AS n FROM t1;
SELECT id FROM t1 WHERE id > 100;
DELETE FROM t1 WHERE id = 4;
SELECT name FROM t1 WHERE id = 3
