gone:
  beacon.absent:
    - name: ps
    - save: True
gone2:
  beacon.absent:
    - name: mem
gone_missing:
  beacon.absent:
    - name: nope
    - save: True
