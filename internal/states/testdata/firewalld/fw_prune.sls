brinez:
  firewalld.present:
    - default: True
    - prune_block_icmp: True
    - block_icmp:
      - echo-reply
    - ports:
      - 9090/tcp
    - prune_ports: True
    - port_fwd:
      - 80:443:udp:192.168.0.1
    - prune_port_fwd: True
    - services:
      - ssh
    - prune_services: True
    - interfaces:
      - brfw1
    - prune_interfaces: True
    - sources:
      - 10.2.0.0/16
    - prune_sources: True
    - rich_rules:
      - rule service name='ssh' accept
    - prune_rich_rules: True
brinesvc:
  firewalld.service:
    - ports:
      - 4505/tcp
