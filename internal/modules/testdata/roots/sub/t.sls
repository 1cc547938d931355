a: {{ grains.os }}
sls: "{{ sls }}"
tpldir: "{{ tpldir }}"
tplfile: "{{ tplfile }}"
name: {{ name|default("none") }}
