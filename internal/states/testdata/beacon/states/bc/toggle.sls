dis:
  beacon.disabled:
    - name: mem
en:
  beacon.enabled:
    - name: mem
dis_missing:
  beacon.disabled:
    - name: nope
en_missing:
  beacon.enabled:
    - name: nope
