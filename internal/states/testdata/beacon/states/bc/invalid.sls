bad_add:
  beacon.present:
    - name: mem2
    - beacon_module: memusage
    - interval: 5

bad_modify:
  beacon.present:
    - name: mem
    - beacon_module: memusage
    - interval: 5

unknown_module:
  beacon.present:
    - name: nosuch
    - whatever: 1
