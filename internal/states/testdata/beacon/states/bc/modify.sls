ps_beacon:
  beacon.present:
    - name: ps
    - save: True
    - enable: False
    - processes:
        salt-master: running
        apache2: stopped
    - interval: 10

mem_beacon:
  beacon.present:
    - name: mem
    - beacon_module: memusage
    - percent: 70%
    - interval: 20
