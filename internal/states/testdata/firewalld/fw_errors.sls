public:
  firewalld.present:
    - default: True
    - services:
      - nosuchservice
brinesvc:
  firewalld.service:
    - protocols:
      - nosuchproto
othersvc:
  firewalld.service:
    - ports:
      - 1234/tcp
brinez:
  firewalld.present:
    - prune_ports: True
    - prune_services: True
    - prune_rich_rules: True
    - prune_interfaces: True
    - prune_sources: True
    - prune_port_fwd: True
    - prune_block_icmp: True
