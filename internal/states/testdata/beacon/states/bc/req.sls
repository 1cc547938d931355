SCRATCH/r1:
  file.managed:
    - contents: a
    - beacon: True
SCRATCH/r2:
  file.managed:
    - contents: b
    - beacon: True
    - require:
      - file: SCRATCH/r1
SCRATCH/r3:
  file.managed:
    - contents: c
    - beacon: True
    - require:
      - file: SCRATCH/r4
SCRATCH/r4:
  file.managed:
    - contents: d
nochange:
  test.succeed_without_changes: []
h1-nosuch-svc:
  service.running:
    - beacon: True
    - onchanges:
      - test: nochange
