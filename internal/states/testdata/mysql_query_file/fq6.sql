INSERT INTO t1 VALUES (7, 'g');
UPDATE t1 SET name = 'z' WHERE id = 1;
