motd:
  test.succeed_with_changes:
    - name: "Welcome to {{ grains['id'] }} ({{ grains['os'] }})"

{% for user in pillar.get('users', []) %}
user_{{ user }}:
  test.nop:
    - name: {{ user }}
    - require:
      - test: motd
{% endfor %}
