a: 1
{% from "lib.jinja" import x %}
b: {{ x }}
