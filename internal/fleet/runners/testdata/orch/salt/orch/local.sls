one:
  test.succeed_with_changes: []
keys:
  salt.wheel:
    - name: key.list_all
    - require:
      - test: one
files:
  salt.runner:
    - name: fileserver.file_list
args:
  salt.runner:
    - name: test.arg
    - arg: [1]
    - kwarg: {k: v}
    - extra: x
fail:
  test.fail_without_changes: []
rescue:
  test.succeed_without_changes:
    - onfail:
      - test: fail
pillar_seen:
  test.show_notification:
    - text: {{ pillar.get('who', 'nobody') }} {{ grains['id'] }} {{ opts['id'] }}
