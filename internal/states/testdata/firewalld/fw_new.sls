brinez:
  firewalld.present:
    - masquerade: True
    - block_icmp:
      - echo-request
      - echo-reply
      - bogus-type
    - ports:
      - 8080/tcp
      - 53/udp
    - port_fwd:
      - 22:2222:tcp
      - 80:443:udp:192.168.0.1
    - services:
      - http
      - https
    - interfaces:
      - brfw0
    - sources:
      - 10.1.0.0/16
    - rich_rules:
      - rule family=ipv4 source address='10.0.0.0/8' accept
      - rule service name="ssh" accept
brinesvc:
  firewalld.service:
    - ports:
      - 4505/tcp
      - 4506/tcp
    - protocols:
      - gre
