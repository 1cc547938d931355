# test=True on a zone that does not exist yet: Salt lists the zone's ICMP
# blocks, which fails, keeps the zone in changes and reloads.
brinez:
  firewalld.present:
    - ports:
      - 8080/tcp
    - block_icmp:
      - echo-request
