{% from "web/map.jinja" import web with context %}

web_package:
  test.succeed_without_changes:
    - name: {{ web.package }}

web_config:
  test.succeed_with_changes:
    - name: {{ web.conf }}
    - require:
      - test: web_package
    - watch_in:
      - test: web_service

web_service:
  test.nop:
    - name: {{ web.package }}
    - port: {{ pillar['web']['port'] }}
