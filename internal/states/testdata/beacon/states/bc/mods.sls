SCRATCH/f1:
  file.managed:
    - contents: hello
    - beacon: True

SCRATCH/d1:
  file.directory:
    - beacon: True
    - beacon_data:
        mask: [modify]
        interval: 5
        exclude: [SCRATCH/d1/x]

SCRATCH/gone:
  file.absent:
    - beacon: True

nobeacon:
  file.managed:
    - name: SCRATCH/f2
    - contents: x
    - beacon: False

bad_data:
  file.managed:
    - name: SCRATCH/f3
    - contents: x
    - beacon: True
    - beacon_data: [1]

bash:
  pkg.installed:
    - beacon: False

h1-nosuch-pkg:
  pkg.purged:
    - beacon: True

svc:
  service.running:
    - name: h1-nosuch-svc
    - beacon: True
    - beacon_data:
        delay: 3
        emitatstartup: True
        interval: 30

tst:
  test.succeed_with_changes:
    - beacon: True
