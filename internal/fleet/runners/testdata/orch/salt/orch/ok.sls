only:
  test.succeed_without_changes: []
