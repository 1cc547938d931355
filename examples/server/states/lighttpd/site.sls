{% from "lighttpd/map.jinja" import lighttpd with context %}

include:
  - lighttpd

lighttpd_docroot:
  file.directory:
    - name: {{ lighttpd.docroot }}
    - user: root
    - group: {{ lighttpd.group }}
    - dir_mode: '0755'
    - makedirs: True
    - require:
      - pkg: lighttpd_pkg
    - require_in:
      - service: lighttpd_service

lighttpd_index:
  file.managed:
    - name: {{ lighttpd.docroot }}/index.html
    - contents_pillar: lighttpd:settings:index_html
    - mode: '0644'
    - require:
      - file: lighttpd_docroot
