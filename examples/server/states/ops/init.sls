{#- Operator accounts and their cron jobs, from the pillar's ops:users. #}
{% for name, user in salt['pillar.get']('ops:users', {}) | dictsort %}
ops_user_{{ name }}:
  user.present:
    - name: {{ name }}
    - fullname: {{ user.fullname }}
    - shell: {{ user.get('shell', '/bin/bash') }}
    - home: /home/{{ name }}
    - createhome: True

ops_bin_{{ name }}:
  file.directory:
    - name: /home/{{ name }}/bin
    - user: {{ name }}
    - group: {{ name }}
    - dir_mode: '0750'
    - require:
      - user: ops_user_{{ name }}

{% for job in user.get('cron', []) %}
ops_cron_{{ name }}_{{ job.id }}:
  cron.present:
    - name: {{ job.cmd }}
    - user: {{ name }}
    - identifier: {{ job.id }}
    - minute: '{{ job.get('minute', '*') }}'
    - hour: '{{ job.get('hour', '*') }}'
    - require:
      - user: ops_user_{{ name }}
{% endfor %}
{% endfor %}
