{% from "lighttpd/map.jinja" import lighttpd with context %}

lighttpd_pkg:
  pkg.installed:
    - name: {{ lighttpd.pkg }}

lighttpd_config:
  file.managed:
    - name: {{ lighttpd.config }}
    - source: salt://lighttpd/files/lighttpd.conf.jinja
    - template: jinja
    - user: root
    - group: root
    - mode: '0644'
    - context:
        lighttpd: {{ lighttpd | json }}
    - require:
      - pkg: lighttpd_pkg

lighttpd_service:
  service.running:
    - name: {{ lighttpd.service }}
    - enable: True
    - require:
      - pkg: lighttpd_pkg
    - watch:
      - file: lighttpd_config
