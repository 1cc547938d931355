ops:
  users:
    brinedemo:
      fullname: brine example operator
      cron:
        - id: brine-example-heartbeat
          minute: '*/15'
          cmd: date > /home/brinedemo/heartbeat
