SELECT id, name FROM t1 ORDER BY id;
